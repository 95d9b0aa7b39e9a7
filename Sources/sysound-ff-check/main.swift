print("sysound-ff-check: not yet built")
