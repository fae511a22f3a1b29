import RegionSearchCLI

GenerateCommand.main()
