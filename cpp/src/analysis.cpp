// Placeholder: implemented in the next commits (see the header).
