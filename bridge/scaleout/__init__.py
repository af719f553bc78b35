"""The scale-out runtime of one instance: what it shares through the store (``mcp_eras.bridge.store``)."""
