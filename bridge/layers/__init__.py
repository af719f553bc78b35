"""The ``Upstream`` layers: wrappers around a real upstream, each declaring its ``inner`` and what it adds."""
