"""A v1 server and the client that reads its tool schemas."""
