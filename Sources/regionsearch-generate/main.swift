import RegionSearch

GenerateCommand.main()
