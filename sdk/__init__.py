"""What scripters touch: typed domain events, the per-world runtime, triggers, prompts, scripts."""
