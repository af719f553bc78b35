"""The protected gateway's shells (issue 34): upstream credentials and the audit log; the decisions are in
``mcp_eras.bridge.translate.gateway``."""
