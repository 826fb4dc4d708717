"""One module per study; each calls ``experiments.registry.register`` on import."""
