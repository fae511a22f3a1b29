import RegionSearch

RegionsStage.main()
