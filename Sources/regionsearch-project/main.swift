import RegionSearchStages

ProjectStage.main()
