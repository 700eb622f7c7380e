"""cardgen: versioned YAML game data -> card sheets, rulebooks, diffs and exports."""

__version__ = "0.1.0"
