"""Data stage: the project's YAML -> a version's resolved, validated snapshot (no rendering here)."""
