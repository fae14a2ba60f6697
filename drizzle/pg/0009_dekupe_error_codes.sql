ALTER TABLE "dekupe_attempts" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "dekupe_error_code" text;--> statement-breakpoint
-- Failed attempts recorded before the codes existed get theirs from their messages (lower(): LIKE ignores case on
-- SQLite only, and the colorkey example wrote "no product found").
UPDATE products SET dekupe_error_code = CASE
  WHEN dekupe_error = 'The original image is missing from storage.' THEN 'image_missing'
  WHEN lower(dekupe_error) LIKE 'background removal did not finish:%' THEN 'did_not_finish'
  WHEN lower(dekupe_error) LIKE 'the image kept changing%' THEN 'image_changing'
  WHEN lower(dekupe_error) LIKE 'background removal failed: no product found%' OR lower(dekupe_error) LIKE 'background removal failed: no object found under the hint%' THEN 'no_subject'
  WHEN lower(dekupe_error) LIKE 'background removal failed: the cut-out came out empty%' THEN 'empty_matte'
  ELSE 'removal_failed'
END WHERE dekupe_error IS NOT NULL;--> statement-breakpoint
UPDATE dekupe_attempts SET error_code = CASE
  WHEN error = 'The original image is missing from storage.' THEN 'image_missing'
  WHEN lower(error) LIKE 'background removal did not finish:%' THEN 'did_not_finish'
  WHEN lower(error) LIKE 'the image kept changing%' THEN 'image_changing'
  WHEN lower(error) LIKE 'background removal failed: no product found%' OR lower(error) LIKE 'background removal failed: no object found under the hint%' THEN 'no_subject'
  WHEN lower(error) LIKE 'background removal failed: the cut-out came out empty%' THEN 'empty_matte'
  ELSE 'removal_failed'
END WHERE error IS NOT NULL;
