# SPDX-License-Identifier: MIT
from jitcache.cli import main

main()
