import RegionSearch

ProjectStage.main()
