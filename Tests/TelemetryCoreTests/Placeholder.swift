// Placeholder until the target's first file lands.
