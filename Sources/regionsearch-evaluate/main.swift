import RegionSearchCLI

EvaluateCommand.main()
