"""Analyses of finished games: queued, run in worker processes of their own, kept in the store once.

==========  =====================================================================================
``desk``    ``AnalysisDesk``: the queue, its bounds per person, address and node, and the answers
``worker``  what runs in a worker process: the analysis and the rules, not the server
==========  =====================================================================================
"""

from server.analysis.desk import AnalysisDesk

__all__ = ["AnalysisDesk"]
