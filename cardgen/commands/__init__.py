"""One module per `cardgen` command, each exposing `command` (a click command)."""
