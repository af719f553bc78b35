"""Fleet mode: many upstreams behind one bridge, era inventory, staged upgrades, equivalence checks."""
