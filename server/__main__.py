import sys

from server.app import main

sys.exit(main())
