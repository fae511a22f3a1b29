import RegionSearchCLI

BenchmarkCommand.main()
