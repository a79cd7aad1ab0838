"""The build steps of the MkDocs plugin ``devguide`` (devguide/mkdocs_plugin/__init__.py), one
module each: event handlers with their priorities, registered by the plugin."""
