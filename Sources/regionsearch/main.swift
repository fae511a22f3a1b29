import RegionSearchCLI

Driver.main()
