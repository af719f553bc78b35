from mcp_eras.bridge.launch import main

main()
