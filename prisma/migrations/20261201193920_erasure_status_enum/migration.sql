-- Hand-edited: the generated diff dropped and re-added both status columns, which would reset
-- every existing request to 'received' and every tombstone to 'tombstoned'. Instead each column
-- is converted in place (the labels are the words the rows already hold; a row holding anything
-- else fails the migration rather than being rewritten), and its index is rebuilt by the ALTER.

-- CreateEnum
CREATE TYPE "ErasureStatus" AS ENUM ('received', 'tombstoned', 'purged', 'tombstone-expired', 'closed', 'at-risk', 'failed');

-- CreateEnum
CREATE TYPE "ErasureTombstoneStatus" AS ENUM ('tombstoned', 'purged', 'tombstone-expired');

-- AlterTable: a text default does not cast to the enum, so it is dropped and set again around the cast.
ALTER TABLE "ErasureRequest" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "ErasureStatus" USING "status"::"ErasureStatus",
ALTER COLUMN "status" SET DEFAULT 'received';

-- AlterTable
ALTER TABLE "ErasureTombstone" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "ErasureTombstoneStatus" USING "status"::"ErasureTombstoneStatus",
ALTER COLUMN "status" SET DEFAULT 'tombstoned';
