import RegionSearch

Driver.main()
