import RegionSearchStages

IngestStage.main()
