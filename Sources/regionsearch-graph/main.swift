import RegionSearch

GraphStage.main()
