import RegionSearchStages

RegionsStage.main()
