import RegionSearch

EvaluateCommand.main()
