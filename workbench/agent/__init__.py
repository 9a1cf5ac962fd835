"""The model side of a session: the conversation types, the provider interface and its providers."""
