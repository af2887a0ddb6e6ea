from match_bench.run import main

main()
