import RegionSearchStages

PropagateStage.main()
