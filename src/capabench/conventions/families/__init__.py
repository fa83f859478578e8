"""One module per convention family, each registering its class with `register`; the
registry imports them all on its first lookup (`conventions.base.REGISTRY`)."""
