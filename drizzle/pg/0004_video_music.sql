-- videos.music: the track chosen at create time (a track id or "none"); null on videos made before music.
ALTER TABLE "videos" ADD COLUMN "music" text;
