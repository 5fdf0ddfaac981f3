# SPDX-License-Identifier: MIT
"""jitcache: GPU kernel JIT compilation done once per machine, not once per process.

This package holds jitcache's library (libjitcache.so, preloaded into the
programs it speeds up) and its command; `jitcache --help` says how to use
them.  Nothing is imported into Python programs: run them with
`jitcache run -- python app.py`.
"""
