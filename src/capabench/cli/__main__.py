from capabench.cli import main

main()
