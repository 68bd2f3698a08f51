"""How the agent is configured: its settings, what a cross-rack byte costs, and logging."""
