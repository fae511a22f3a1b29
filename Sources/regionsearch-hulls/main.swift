import RegionSearchStages

HullsStage.main()
