import RegionSearchCLI

PreviewCommand.main()
