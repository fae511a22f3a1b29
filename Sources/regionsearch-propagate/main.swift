import RegionSearch

PropagateStage.main()
