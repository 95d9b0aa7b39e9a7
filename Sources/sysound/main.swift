print("sysound: not yet built")
