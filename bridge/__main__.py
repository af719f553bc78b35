from mcp_eras.bridge.cli import main

main()
