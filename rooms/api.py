"""The REST doors of the rooms profile (§20): `/api/v1/rooms` lists (GET) and creates (POST),
`/api/v1/rooms/{id}` reads (GET) and edits (PATCH), `/join`, `/leave`, `/members`, `/members/{identity}`
and `/log`. A room in a path is `rm_<n>`, `<n>` or its slug, handed to the operation as it is: a malformed
or unknown one is the operation's not_found."""
from forum.api.views import MethodOperationView
from rooms import operations


class RoomPathView(MethodOperationView):
    path_argument = "room"

    def path_value(self, ref):
        return ref


class RoomsView(MethodOperationView):
    operations = {"GET": operations.LIST_ROOMS, "POST": operations.CREATE_ROOM}


class RoomView(RoomPathView):
    operations = {"GET": operations.READ_ROOM, "PATCH": operations.EDIT_ROOM}


class JoinView(RoomPathView):
    operations = {"POST": operations.JOIN_ROOM}


class LeaveView(RoomPathView):
    operations = {"POST": operations.LEAVE_ROOM}


class ArchiveView(RoomPathView):
    operations = {"POST": operations.ARCHIVE_ROOM}


class MembersView(RoomPathView):
    operations = {"POST": operations.ADD_MEMBER}


class MemberView(RoomPathView):
    operations = {"DELETE": operations.REMOVE_MEMBER}

    def arguments(self, request, ref):
        return {**super().arguments(request, ref), "identity": self.kwargs["identity"]}

    def serve(self, request, ref=None, identity=None):
        return super().serve(request, ref)

    delete = serve


class LogView(RoomPathView):
    operations = {"GET": operations.ROOM_LOG}
