-- A Partition row is rewritten several times a second by its owner (manifest commit, lease renewal,
-- stats save), never in an indexed column. With free room on its page the new version is a
-- heap-only tuple (HOT): no new entry in any of the table's three indexes, and the old version is
-- pruned on the page. At the default fillfactor (100) pages are full, almost every update moved
-- the row to another page and added three index entries, and each later statement walked the dead
-- entries (a fleet of 100,000 partitions: 4 % of updates HOT, the table 17x its live size).
-- One statement rewrites every row a worker holds on a page (its rows sit together: claimed
-- together) and cannot prune its own versions, so a page needs as much free room as its live rows
-- plus their line pointers: under half full. Pages filled from now on stay 40 % full (a row the
-- claim moves, as it changes the indexed owner, lands on one); full pages keep their rows until those move.
ALTER TABLE "Partition" SET (fillfactor = 40);

-- Every worker counts the table once per claim tick (the load snapshot), two statements a second per
-- worker, each short: launching parallel workers for each (two processes per scan
-- at the planner's choice past a few MB) cost more than they saved and multiplied the processes
-- competing for the same cores. None of the table's statements is an analytic one.
ALTER TABLE "Partition" SET (parallel_workers = 0);
