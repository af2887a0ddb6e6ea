"""`make bench`: load the running stack through its real gRPC API and measure it (not a test)."""
