"""What the agent asks Kafka's brokers: the RPC client, replica placement, measured traffic."""
