import RegionSearchStages

GraphStage.main()
