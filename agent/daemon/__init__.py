"""The long-running agent: subscriptions in, plans out (see docs/architecture.md)."""
