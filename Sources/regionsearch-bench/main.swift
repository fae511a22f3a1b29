import RegionSearch

BenchmarkCommand.main()
