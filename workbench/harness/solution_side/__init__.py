"""Code that runs inside the solution's (untrusted) process.

Nothing here may import from the rest of `workbench`: the folder is copied on its own into each eval's
sandbox and run there as the package `solution_side`, so that the solution's process holds no harness
code that decides a verdict. Modules import each other relatively.
"""
