"""The protected gateway's decisions (issue 34) as pure code: no I/O, no clock."""
