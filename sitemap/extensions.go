package sitemap

import "fmt"

// The Google extensions of a <url>: image, video and news. Each is a
// sub-element whose children are fields; xmlParser.sub says which one is
// open.

func (x *xmlParser) subChild(name string) {
	switch x.sub {
	case subImage:
		switch name {
		case "loc":
			x.capture(&x.img.Loc, name)
		case "caption":
			x.capture(&x.img.Caption, name)
		case "title":
			x.capture(&x.img.Title, name)
		case "geo_location":
			x.capture(&x.img.GeoLocation, name)
		case "license":
			x.capture(&x.img.License, name)
		}
	case subVideo:
		if dst := x.videoField(name); dst != nil {
			x.capture(dst, name)
		}
	case subNews:
		n := x.e.News
		switch name {
		case "publication":
			x.sub, x.subDepth = subPublication, x.depth
		case "publication_date":
			x.capture(&n.PublicationDateRaw, name)
		case "title":
			x.capture(&n.Title, name)
		case "keywords":
			x.capture(&n.Keywords, name)
		case "genres":
			x.capture(&n.Genres, name)
		case "access":
			x.capture(&n.Access, name)
		case "stock_tickers":
			x.capture(&n.StockTickers, name)
		}
	case subPublication:
		switch name {
		case "name":
			x.capture(&x.e.News.PublicationName, name)
		case "language":
			x.capture(&x.e.News.PublicationLanguage, name)
		}
	}
}

func (x *xmlParser) videoField(name string) *string {
	v := &x.vid
	switch name {
	case "thumbnail_loc":
		return &v.ThumbnailLoc
	case "title":
		return &v.Title
	case "description":
		return &v.Description
	case "content_loc":
		return &v.ContentLoc
	case "player_loc":
		return &v.PlayerLoc
	case "duration":
		return &v.Duration
	case "expiration_date":
		return &v.ExpirationDate
	case "rating":
		return &v.Rating
	case "view_count":
		return &v.ViewCount
	case "publication_date":
		return &v.PublicationDate
	case "family_friendly":
		return &v.FamilyFriendly
	case "restriction":
		return &v.Restriction
	case "platform":
		return &v.Platform
	case "requires_subscription":
		return &v.RequiresSubscription
	case "uploader":
		return &v.Uploader
	case "live":
		return &v.Live
	case "category":
		return &v.Category
	case "tag":
		return &x.tag
	}
	return nil
}

func (x *xmlParser) endSub() {
	switch x.sub {
	case subImage:
		x.sub = subNone
		if ref := x.ents.unexpanded(x.img.Loc); ref != "" {
			x.rep.addProblem(ProblemEntity, x.line(), restoreEntities(x.img.Loc), "image:loc has the entity "+ref+", which is never expanded; image dropped")
			return
		}
		if len(x.e.Images) >= maxExtensions {
			x.rep.addProblem(ProblemExtensionLimit, x.line(), "", fmt.Sprintf("more than %d images", maxExtensions))
			return
		}
		x.e.Images = append(x.e.Images, x.img)
	case subVideo:
		x.sub = subNone
		if len(x.e.Videos) >= maxExtensions {
			x.rep.addProblem(ProblemExtensionLimit, x.line(), "", fmt.Sprintf("more than %d videos", maxExtensions))
			return
		}
		x.e.Videos = append(x.e.Videos, x.vid)
	case subPublication:
		x.sub, x.subDepth = subNews, x.subDepth-1
	default:
		x.sub = subNone
	}
}
