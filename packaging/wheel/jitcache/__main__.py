from jitcache.cli import main

main()
