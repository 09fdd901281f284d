"""The adapter's own refusals. SGLang's exceptions are reported under their own names instead."""


class Rejection(Exception):
    """A request the adapter refuses itself; the class name is the error name on the wire."""


class ProtocolError(Rejection):
    """A malformed request: unknown op, missing field, a field of the wrong JSON type."""


class StateError(Rejection):
    """An op before its pool exists, or a restoreState of something backupState did not return."""


class AdapterLimit(Rejection):
    """A size past what the adapter builds (the validator's pools are far smaller)."""
