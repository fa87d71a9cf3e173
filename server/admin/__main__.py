import sys

from server.admin.cli import main

sys.exit(main())
