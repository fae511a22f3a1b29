import RegionSearch

IngestStage.main()
