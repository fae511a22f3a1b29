import RegionSearch

HullsStage.main()
