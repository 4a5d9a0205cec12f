"""One package per title, each with the same shape: meta, components, state, rules."""
